import type { FaultResult } from './run-fault.js';

/** What a fault run prints for one fault: counts, anomalies by checker, and the first anomalies in words. */
export function describeResult(result: FaultResult, shown = 5): string[] {
  const checkers = Object.entries(result.byChecker).map(([name, count]) => `${name} ${count}`).join(', ');
  const undecided = result.verdict.undecided.length > 0 ? `; linearizability undecided for ${result.verdict.undecided.length} users (search budget spent)` : '';
  const lines = [`${result.fault}: ${result.operations} operations, ${result.acknowledged} acknowledged, ${result.unknown} unknown; anomalies: ${checkers}${undecided}`];
  const { users, refused412, events, readerEvents, answers, limitsNotRejoined } = result.checked;
  const { healedAt, firstUnknown, lastUnknown } = result.timeline;
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const unknownSpan = firstUnknown === undefined ? 'none unknown' : `unknown ones from ${seconds(firstUnknown)} to ${seconds(lastUnknown!)} after the fault began`;
  lines.push(`#   answers: ${Object.entries(answers).map(([status, count]) => `${status} x${count}`).join(', ')}; ${unknownSpan}, healed and whole at ${seconds(healedAt)}`);
  lines.push(`#   checked: ${users} users created, ${refused412} conditional writes refused 412, ${events} events of the run in the outbox, ${readerEvents.join(' and ')} received by the two stream readers; shared limits ${limitsNotRejoined.length === 0 ? 'rejoined by every instance' : `not rejoined: ${limitsNotRejoined.join('; ')}`}`);
  for (const anomaly of result.verdict.anomalies.slice(0, shown)) lines.push(`  ${anomaly.checker}: ${anomaly.message}`);
  if (result.verdict.anomalies.length > shown) lines.push(`  ... and ${result.verdict.anomalies.length - shown} more`);
  return lines;
}

/** The last line: `faults: <operations> operations, <anomalies> anomalies`. */
export function summaryLine(results: FaultResult[]): string {
  const operations = results.reduce((sum, result) => sum + result.operations, 0);
  const anomalies = results.reduce((sum, result) => sum + result.verdict.anomalies.length, 0);
  return `faults: ${operations} operations, ${anomalies} anomalies`;
}
