/**
 * A task run every `intervalMs` (measured from the end of the previous run, so runs never overlap),
 * logging and carrying on after a failure. `stop()` waits for a run in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Starts the cadence; with `runNow` the first run happens (and is awaited) before it. */
  async start({ runNow }: { runNow: boolean }): Promise<void> {
    if (runNow) await this.tick();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, this.intervalMs);
  }

  private async tick(): Promise<void> {
    this.running = this.run().catch(this.onError);
    await this.running;
  }
}
