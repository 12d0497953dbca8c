export { default } from '@bridle/test-postgres/vitest-setup'
