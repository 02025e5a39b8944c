/**
 * How long to wait before replacing a worker that died: `firstMs` after one that had run at least
 * `stableAfterMs`, doubling (up to `maxMs`) for each further death of a worker that did not.
 */
export class RestartBackoff {
  private pauseMs = 0;

  constructor(
    private readonly firstMs = 100,
    private readonly maxMs = 10_000,
    private readonly stableAfterMs = 10_000,
  ) {}

  next(livedMs: number): number {
    this.pauseMs = livedMs >= this.stableAfterMs || this.pauseMs === 0 ? this.firstMs : Math.min(this.pauseMs * 2, this.maxMs);
    return this.pauseMs;
  }
}
