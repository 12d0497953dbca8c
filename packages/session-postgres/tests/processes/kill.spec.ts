import { describeKills } from './kill-run.js'

describeKills(200)
