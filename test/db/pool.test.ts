import { SchemaValidationError, sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();

describe('the database pool', () => {
  it('checks rows against the query schema and returns the parsed value', async () => {
    const row = z.object({ n: z.number(), label: z.string().transform((s) => s.toUpperCase()) });
    expect(await db.pool.one(sql.type(row)`SELECT 1 AS n, 'ok' AS label`)).toEqual({ n: 1, label: 'OK' });
  });

  it('refuses a row that does not match its schema', async () => {
    const row = z.object({ n: z.string() });
    await expect(db.pool.one(sql.type(row)`SELECT 1 AS n`)).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('serves concurrent queries through the pool, each with its own result', async () => {
    const row = z.object({ n: z.number() });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => db.pool.oneFirst(sql.type(row)`SELECT ${i}::int AS n`)),
    );
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
