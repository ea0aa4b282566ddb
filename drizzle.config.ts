// drizzle-kit reads this to turn changes of the platform schema into committed SQL migrations.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './shared/db/platform-schema.ts',
  out: './shared/db/migrations',
  schemaFilter: ['platform'],
});
