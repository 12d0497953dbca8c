import { describeKills } from './kill-run.js'

describeKills(1_000)
