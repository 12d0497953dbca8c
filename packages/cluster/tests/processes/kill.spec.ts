import { describeClusterKills } from './kill-run.js'

describeClusterKills(200)
