#!/usr/bin/env node
import { main } from './cli.js'
import { processIo } from './terminal.js'

const code = await main(process.argv.slice(2), processIo())
// Plugins may hold timers or watchers; the command is over, so leave now with its code.
process.exit(code)
