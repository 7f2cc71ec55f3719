// Types of scripts/check-links.mjs for test/links.test.ts.
export function slugOf(heading: string): string;
export function anchorsOf(text: string): Set<string>;
export function linksIn(text: string): { target: string; line: number }[];
export function findBrokenLinks(root: string, files: string[]): string[];
export function markdownFiles(root?: string): string[];
