/** SIGINT with a terminal on stdin: Ctrl-C in a developer's `npm start`, which stops at once (SHUTDOWN_DELAY_S is for load balancers). */
export function interactiveStop(signal: string): boolean {
  return signal === 'SIGINT' && process.stdin.isTTY === true;
}

/**
 * The pause between a stop signal and the drain (SHUTDOWN_DELAY_S). `/readyz` already answers 503,
 * so a load balancer takes the instance out of rotation while it still serves what arrives
 * meanwhile; draining at once would close connections the balancer is about to use. skip() ends
 * the pause early, or cancels it if it has not begun (an impatient operator's second Ctrl-C).
 */
export class ShutdownDelay {
  private skipped = false;
  private cut: (() => void) | undefined;

  constructor(readonly ms: number) {}

  /** Resolves once the pause is over: at once when it is 0 or was skipped; true when it was cut short. */
  wait(): Promise<boolean> {
    if (this.skipped || this.ms === 0) return Promise.resolve(this.skipped);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), this.ms);
      this.cut = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  skip(): void {
    this.skipped = true;
    this.cut?.();
  }
}
