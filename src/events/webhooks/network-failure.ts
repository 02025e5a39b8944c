/** An attempt that got no status, in words: `error` for last_error and the log, `reason` for an integrator's attempts log. */
export interface NetworkFailure {
  error: string;
  reason: string;
}

const REASONS: Record<string, string> = {
  EADDRNOTALLOWED: 'address not allowed',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  ECONNABORTED: 'reset',
  EPIPE: 'reset',
  ENOTFOUND: 'name not resolved',
  EAI_AGAIN: 'name not resolved',
  EAI_FAIL: 'name not resolved',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  ERR_INVALID_URL: 'invalid url',
  ERR_INVALID_PROTOCOL: 'invalid url',
};

/** `request failed: ECONNREFUSED` and `refused`, ...; a refused address is told without naming it, which would map the network behind it. */
export function networkFailure(error: unknown): NetworkFailure {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return { error: `request failed: ${(error as Error).message}`.slice(0, 200), reason: 'connection failed' };
  if (code === 'EADDRNOTALLOWED') return { error: 'address not allowed', reason: 'address not allowed' };
  return { error: `request failed: ${code}`, reason: REASONS[code] ?? reasonOfOther(code) };
}

function reasonOfOther(code: string): string {
  if (/^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_/.test(code)) return 'tls error';
  if (code.startsWith('HPE_')) return 'invalid response';
  return 'connection failed';
}
