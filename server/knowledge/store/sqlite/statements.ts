/**
 * Prepared statements, each prepared once per connection: a turn's knowledge lookup runs the same dozen
 * queries every time, and preparing them was a quarter of its store time. SQLite re-prepares a cached
 * statement by itself after a schema change, so a cached one never goes stale.
 */
import type Database from 'better-sqlite3';

export class Statements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let st = this.cache.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.cache.set(sql, st);
    }
    return st;
  }
}
