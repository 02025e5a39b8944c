/** Private MariaDB/MySQL servers on the machine's installed binaries. */
export { findServerBinaries } from './binaries.js';
export { isInitialised } from './data-dir.js';
export { DataDirError, EmbeddedServerError } from './embedded-server-error.js';
export { startPrivateServer, type PrivateServer } from './launcher.js';
export { answersAsRoot } from './readiness.js';
export { recordedSocket } from './socket-place.js';
