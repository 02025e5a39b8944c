// The exporter's thread when the service runs from its TypeScript sources (npm start, the tests): a
// worker does not inherit tsx's loader, so it registers it before importing export-worker.ts.
// Compiled, the service starts export-worker.js directly and never reads this file.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
