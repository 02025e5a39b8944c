/** Why a test cannot run here: the message `check` throws, or undefined when it does not throw. */
export function skipReasonOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
