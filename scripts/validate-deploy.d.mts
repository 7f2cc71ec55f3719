// Types of scripts/validate-deploy.mjs for test/deploy.test.ts.
export const ROOT: string;
export const SERVICES: string[];
export const EXTERNAL_SECRET: string;
export type Manifest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export interface DockerStage {
  name: string;
  from: string;
  instructions: { op: string; args: string }[];
}
export function validateDocument(doc: Manifest): string[];
export function checkManifests(docs: Manifest[], options?: { requireTags?: boolean }): string[];
export function parseYamlDocuments(text: string): Manifest[];
export function renderKustomization(dir: string): Manifest[];
export function kustomizations(root?: string): { dir: string; requireTags: boolean }[];
export function checkComposeConfig(resolved: Manifest, composeText: string, envExampleText: string): string[];
export function resolveCompose(root?: string): Manifest;
export function checkCompose(root?: string): string[];
export function parseDockerfile(text: string): DockerStage[];
/** The pinned pnpm (package.json packageManager) as `pnpm@<version>`. */
export function rootPackageManager(root?: string): string | undefined;
export function checkDockerfile(text: string, options?: { root?: string; packageManager?: string }): string[];
