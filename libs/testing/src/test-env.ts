/** Set by the jest global setup: a Postgres URL allowed to create databases. */
export const TEST_ADMIN_URL_ENV = 'CAREEN_TEST_ADMIN_DATABASE_URL';
