import type { PersistenceDriver } from './driver.js'
import { describeAdoption } from './adoption.js'
import { describeCheckpoints } from './checkpoints.js'
import { describeReading } from './reading.js'
import { describeResuming } from './resuming.js'
import { describeSummaries } from './summaries.js'
import { describeWriting } from './writing.js'

/**
 * Declares the backend-independent behaviour tests of `ctx.sessionPersistence` (vitest `describe` blocks) for one
 * backend: writing and retiring live sessions, reading and repairing stored ones, prepare and resume, adopting
 * live sessions after a restart, the durability checkpoints, and the listing summaries. Call it at the top level of a test file.
 */
export function describePersistenceContract<S>(driver: PersistenceDriver<S>): void {
  describeWriting(driver)
  describeReading(driver)
  describeResuming(driver)
  describeAdoption(driver)
  describeCheckpoints(driver)
  describeSummaries(driver)
}

export {
  captureWarnings,
  loadBackend,
  makeApp,
  rejection,
  type ContractApp,
  type LoadedBackend,
  type PersistenceDriver,
  type SharedConfig,
  type StoredHeader,
} from './driver.js'
export { header, replay, sampleEvents, scriptedLog, userMessage } from './fixtures.js'
export { buildLog, scriptedAppends, type ScriptedAppend } from './script.js'
