/**
 * The cached device-flow access token: one JSON file readable by the user only (file 0600 in a
 * directory created 0700; an existing directory is left as it is). Written to a temporary file
 * and renamed, so a crash never leaves half a token. The token belongs to one API: a file written
 * for another KAIROS_URL is ignored (and replaced at the next sign-in).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';

const storedToken = z.object({
  apiUrl: z.string(),
  accessToken: z.string().min(1),
  tokenType: z.literal('Bearer'),
  expiresAt: z.iso.datetime({ offset: true }),
  obtainedAt: z.iso.datetime({ offset: true }),
});
export type StoredToken = z.infer<typeof storedToken>;

/** A token this close to its expiry is treated as expired (signing in again beats a 401 mid-call). */
const EXPIRY_MARGIN_MS = 60_000;

export const isTokenLive = (token: StoredToken, now: Date): boolean =>
  Date.parse(token.expiresAt) - EXPIRY_MARGIN_MS > now.getTime();

export class TokenStore {
  constructor(
    readonly path: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** The live token for this API, or null (missing, unreadable, another API's, expired). */
  async read(apiUrl: string, now: Date): Promise<StoredToken | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
      const { mode } = await stat(this.path);
      if ((mode & 0o077) !== 0) {
        this.warn(
          `${this.path} is readable by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${this.path}`,
        );
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.warn(`cannot read the token file ${this.path}: ${(error as Error).message}`);
      }
      return null;
    }
    const parsed = storedToken.safeParse(parseJson(text));
    if (!parsed.success) {
      this.warn(`ignoring the token file ${this.path}: not a Kairos token file`);
      return null;
    }
    const token = parsed.data;
    if (token.apiUrl !== apiUrl || !isTokenLive(token, now)) return null;
    return token;
  }

  async write(token: StoredToken): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temporary = join(dir, `.kairos-token-${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(token, null, 2)}\n`, 'utf8');
    } finally {
      await handle.close();
    }
    await chmod(temporary, 0o600); // whatever the umask
    await rename(temporary, this.path);
  }

  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
