// Live checks only (tests/*.e2e.ts); never part of `pnpm test`. See README "Live check".
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: { include: ['tests/**/*.e2e.ts'], testTimeout: 60_000 },
})
