// The CLI's tests of session-postgres apps share the run's throwaway PostgreSQL server.
export { default } from '../../session-postgres/testing/global-setup.mjs'
