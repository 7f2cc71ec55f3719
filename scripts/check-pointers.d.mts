// Types of scripts/check-pointers.mjs for test/check-pointers.test.ts.
export const ROOT: string;
export interface Pointer {
  kind: 'path' | 'relative' | 'partial' | 'name';
  pointer: string;
  index: number;
}
export function commentsOf(path: string, text: string): { text: string; line: number }[];
export function pointersIn(text: string): Pointer[];
export function findDanglingPointers(root: string, files: string[]): string[];
export function repositoryFiles(root?: string): string[];
