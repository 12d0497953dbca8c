import { crashSeed } from '../../../../tests/support/crash-seed.js'
import { describeClusterKills } from './kill-run.js'

describeClusterKills(1_000, crashSeed('random'))
