import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { requestsBegun } from '../../load/request-count.js';
import type { DeliveryPace } from './delivery-pace.js';

/** How often the process's load is looked at. */
const SAMPLE_MS = 100;
/** The share of a sample the event loop was busy from which requests are taken to crowd the process. */
const CROWDED_UTILISATION = 0.8;

/**
 * Tells the delivery pace whether requests crowd this process: in the last SAMPLE_MS it served
 * requests and its event loop was busy most of the time. Delivery alone keeping the loop busy is
 * not crowding: it is what an idle process is for.
 */
export class Crowding {
  private timer: NodeJS.Timeout | undefined;
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private begun = requestsBegun();

  constructor(private readonly pace: DeliveryPace) {}

  start(): void {
    this.timer ??= setInterval(() => this.sample(), SAMPLE_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.last).utilization;
    const begun = requestsBegun();
    this.pace.crowd(begun > this.begun && busy >= CROWDED_UTILISATION);
    this.last = now;
    this.begun = begun;
  }
}
