/** <input type="datetime-local"> speaks local wall-clock time without a zone; the API speaks ISO UTC. */

const pad = (n: number) => String(n).padStart(2, '0');

/** A Date → "2026-03-01T13:05" in the browser's zone (minutes; seconds are dropped). */
export function toDateTimeLocal(date: Date): string {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** "2026-03-01T13:05" (local) → ISO UTC, or null when empty or not a time. */
export function fromDateTimeLocal(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A default for a time input: `minutesAhead` from now, on the minute. */
export function defaultDateTimeLocal(now: number, minutesAhead: number): string {
  return toDateTimeLocal(new Date(Math.ceil((now + minutesAhead * 60_000) / 60_000) * 60_000));
}
