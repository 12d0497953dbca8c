// `pnpm test:stress`: the long-running probes (crash kills, truncation offsets, fuzzed inputs) at full size. The same
// projects as vitest.config.ts, but each runs only its `tests/**/*.stress.ts` files; the bounded versions of these
// probes stay in `pnpm test`. A probe prints its figures (kills survived, offsets checked, inputs tried).
import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

type Project = { test: Record<string, unknown> } & Record<string, unknown>

const projects = (base.test?.projects ?? []) as Project[]

export default defineConfig({
  test: {
    projects: projects.map((project) => ({
      ...project,
      test: {
        ...project.test,
        include: ['tests/**/*.stress.ts'],
        testTimeout: 3_600_000,
        hookTimeout: 600_000,
      },
    })),
  },
})
