/**
 * A one-shot "stop" with one listener at a time: what a listing needs from an AbortSignal, without
 * its EventTarget, whose controller and listener cost a small listing about 5 µs of its ~40.
 */
export class StopSignal {
  /** Why it stopped, once it has. */
  reason: Error | undefined;
  private listener: ((reason: Error) => void) | undefined;

  get stopped(): boolean {
    return this.reason !== undefined;
  }

  stop(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    const listener = this.listener;
    this.listener = undefined;
    listener?.(reason);
  }

  /** `listener` is told of the stop, instead of any listener before it; undefined removes it. */
  onStop(listener: ((reason: Error) => void) | undefined): void {
    this.listener = listener;
  }
}
