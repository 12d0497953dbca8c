export { default } from '../testing/global-setup.js'
