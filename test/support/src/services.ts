/**
 * Where the local services started by infra/ listen. Each can be overridden by an environment
 * variable of the same name; the defaults are the non-default ports infra/ uses.
 */
const env = process.env;

export const services = {
  redis: {
    host: env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1',
    port: Number(env.TRIBUTARY_REDIS_PORT ?? 6390),
  },
  s3: {
    endpoint: env.TRIBUTARY_S3_ENDPOINT ?? 'http://127.0.0.1:9100',
    region: env.TRIBUTARY_S3_REGION ?? 'us-east-1',
    accessKeyId: env.TRIBUTARY_S3_ACCESS_KEY ?? 'tributary',
    secretAccessKey: env.TRIBUTARY_S3_SECRET_KEY ?? 'tributary-secret',
    bucket: env.TRIBUTARY_S3_BUCKET ?? 'tributary',
  },
  mariadb: {
    host: env.TRIBUTARY_MARIADB_HOST ?? '127.0.0.1',
    port: Number(env.TRIBUTARY_MARIADB_PORT ?? 3390),
    user: env.TRIBUTARY_MARIADB_USER ?? 'tributary',
    password: env.TRIBUTARY_MARIADB_PASSWORD ?? 'tributary',
  },
  postgres: {
    host: env.TRIBUTARY_POSTGRES_HOST ?? '127.0.0.1',
    port: Number(env.TRIBUTARY_POSTGRES_PORT ?? 5440),
    user: env.TRIBUTARY_POSTGRES_USER ?? 'tributary',
    password: env.TRIBUTARY_POSTGRES_PASSWORD ?? 'tributary',
  },
  hiveMetastore: {
    host: env.TRIBUTARY_HIVE_METASTORE_HOST ?? '127.0.0.1',
    port: Number(env.TRIBUTARY_HIVE_METASTORE_PORT ?? 9183),
  },
} as const;
