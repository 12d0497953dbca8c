// No-network guard: every spec imports this first (tests/support/loopback-only.ts).
import '../../../tests/support/loopback-only.js'
