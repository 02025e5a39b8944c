import { ConfigError, type AuthSettings } from '../config/environment.js';
import { ApiKeyFileError, readApiKeysFile } from './api-key-file.js';

/**
 * AUTH's token sources checked before anything starts: API_KEYS_FILE is read and every line of it
 * parsed, so a file that cannot be used stops the start with one line naming it, as any invalid
 * setting does. The configuration names the file; what a key line may hold is auth's to say.
 */
export function checkTokenSources(settings: AuthSettings): void {
  if (settings.apiKeysFile === undefined) return;
  try {
    readApiKeysFile(settings.apiKeysFile);
  } catch (error) {
    if (!(error instanceof ApiKeyFileError)) throw error;
    throw new ConfigError(`API_KEYS_FILE (${settings.apiKeysFile}) ${error.message}`);
  }
}
