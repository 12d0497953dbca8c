// Setup file of every vitest project (vitest.config.ts): cordis logger output is captured per test (see logs.ts).
import { afterEach, beforeEach } from 'vitest'
import { drainLogs, installLogCapture } from './logs.js'

installLogCapture()

// Stack traces of untaken lines are dropped unless BRIDLE_TEST_LOGS=full (they are the bulk of the noise).
const full = process.env.BRIDLE_TEST_LOGS === 'full'

/** Prints what no test took, one line each, so an unexpected warning stays visible without flooding the run. */
function printUntaken(): void {
  for (const record of drainLogs()) {
    const text = full ? record.content : record.content.split('\n')[0]
    console.log(`[${record.type[0]!.toUpperCase()}] ${record.name} ${text}`)
  }
}

// Before each test: lines logged between tests (late timers of the previous one) are printed, not blamed on this one.
beforeEach(printUntaken)
afterEach(printUntaken)
