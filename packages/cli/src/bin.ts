#!/usr/bin/env node
import { main } from './cli.js'
import { exitWhenFlushed } from './exit.js'
import { processIo } from './terminal.js'

const code = await main(process.argv.slice(2), processIo())
// Plugins may hold timers or watchers; the command is over, so leave with its code once its output has gone out.
await exitWhenFlushed(code)
