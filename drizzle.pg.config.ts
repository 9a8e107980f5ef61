// drizzle-kit for the PostgreSQL schema (the SQLite one is drizzle.config.ts); `bun run db:generate` runs both.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/pg/schema.ts',
  out: './drizzle-pg',
});
