/**
 * Requests this process has begun to serve, counted by the HTTP server and read by background
 * work that yields to them (webhook delivery): one number, whatever reads it.
 */
let begun = 0;

export function countRequest(): void {
  begun++;
}

export function requestsBegun(): number {
  return begun;
}
