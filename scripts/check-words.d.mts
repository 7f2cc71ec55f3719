// Types of scripts/check-words.mjs for test/words.test.ts.
export const OUTSIDE_WORDS: { pattern: RegExp; why: string }[];
export const ALLOWED: RegExp[];
export function outsideWordsIn(text: string): string[];
export function findOutsideWords(root: string, files: string[]): string[];
