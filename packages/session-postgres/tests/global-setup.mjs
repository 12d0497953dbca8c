export { default } from '../testing/global-setup.mjs'
