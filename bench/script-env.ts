/** The bench's child scripts (floor.ts, skeleton.ts) take their settings from the environment. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}
