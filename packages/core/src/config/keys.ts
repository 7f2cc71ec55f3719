/**
 * Keys for jobs and endpoints that have none (made before keys existed, or through the API without
 * one). An export names each by a key derived from its name, and a document naming that key adopts
 * the resource (the plan sets its key) instead of creating a second one. The derivation depends
 * only on the stored rows, so an export and the next plan agree on it.
 */
import { RESOURCE_KEY_PATTERN } from '../schemas/common.js';

const KEY_MAX_LENGTH = 63;

/** "Nightly Export (EU)" → "nightly-export-eu"; `fallback` when nothing is left. */
export function slugKey(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, KEY_MAX_LENGTH)
    .replace(/-+$/, '');
  return RESOURCE_KEY_PATTERN.test(slug) ? slug : fallback;
}

/**
 * Each item's key: its own, else one derived from its name, unique among the siblings (`-2`, `-3`…
 * in the order given, which callers keep stable: creation order).
 */
export function effectiveKeys(items: readonly { key: string | null; name: string }[], fallback: string): string[] {
  const taken = new Set(items.flatMap((item) => (item.key ? [item.key] : [])));
  return items.map((item) => {
    if (item.key) return item.key;
    const base = slugKey(item.name, fallback);
    let key = base;
    for (let n = 2; taken.has(key); n += 1) {
      const suffix = `-${n}`;
      key = `${base.slice(0, KEY_MAX_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(key);
    return key;
  });
}
