export { type BinaryOptions, type PostgresBinaries, packagedNative, runnableBinaries } from './binaries.js'
export { PostgresStartError } from './errors.js'
export { type Runner, serverRunner } from './runner.js'
export { freePort, type StartOptions, startServer, type TestServer } from './server.js'
