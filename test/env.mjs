// Where tests find PostgreSQL and Redis (the machine's services); overridable for other setups.
// Plain ESM: jest loads global-setup outside its module mapper.
export const PG_BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ADMIN_DATABASE_URL = `${PG_BASE_URL}/postgres`;
// One template per jest run (global-setup names it), so concurrent runs never drop each other's.
export const templateDatabase = () => process.env.KAIROS_TEST_TEMPLATE ?? 'kairos_test_template';
export const databaseUrl = (database) => `${PG_BASE_URL}/${database}`;
