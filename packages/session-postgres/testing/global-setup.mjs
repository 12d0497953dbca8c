/**
 * vitest globalSetup: one throwaway PostgreSQL server per test run, shared by every project that lists this setup
 * (through `globalThis`, since each project loads its setup files separately), stopped when the last of them tears
 * down. Tests read its connection string with `inject('pgUrl')`; `BRIDLE_TEST_PG_URL` uses an external server.
 */
import { startServer } from './pg-server.mjs'

const KEY = Symbol.for('bridle.test-postgres-server')

/** @param {import('vitest/node').TestProject} project */
export default async function setup(project) {
  const shared = (globalThis[KEY] ??= { refs: 0, server: startServer() })
  shared.refs++
  const server = await shared.server
  project.provide('pgUrl', server.url)
  return async () => {
    if (--shared.refs > 0) return
    delete globalThis[KEY]
    await server.stop()
  }
}
