// Category administration: set up and add categories, retire them.

import type { Category } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { DomainError } from '../domain/errors.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';

/** Adds one or more new categories at once; all or nothing. */
export async function addCategories(deps: ServiceDeps, actor: Actor, names: readonly string[]): Promise<Category[]> {
  if (names.length === 0 || names.length > LIMITS.maxCategoriesPerCall) {
    throw new DomainError('INVALID_ARGUMENT', `Pass 1 to ${LIMITS.maxCategoriesPerCall} category names.`, 'names');
  }
  const valid = names.map((name, index) => validateText(name, `names[${index}]`, LIMITS.category));
  if (new Set(valid).size !== valid.length) {
    throw new DomainError('DUPLICATE_CATEGORY', 'The same category is listed more than once.', 'names');
  }
  // Direct statements, not Prisma's model API: the command line's `init` writes without Prisma (db/lite.ts).
  return deps.db.write(async (_tx, sql) => {
    const now = deps.clock.now();
    const existing = await sql.all<{ name: string }>(
      `SELECT "name" FROM "Category" WHERE "name" IN (${valid.map(() => '?').join(', ')})`,
      ...valid,
    );
    if (existing.length > 0) {
      throw new DomainError('DUPLICATE_CATEGORY', `Category "${existing[0]?.name}" already exists.`, 'names');
    }
    const created: Category[] = [];
    for (const name of valid) {
      await sql.run('INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)', name, now, actor.name);
      created.push({ name, createdAt: now, createdBy: actor.name, retiredAt: null, retiredBy: null });
      await appendEvent(sql, { type: 'CATEGORY_ADDED', actor: actor.name, at: now, categoryName: name });
    }
    return created;
  });
}

/** Retires a category: it stays on the items that use it but can no longer be proposed or chosen. */
export async function retireCategory(deps: ServiceDeps, actor: Actor, rawName: string): Promise<Category> {
  const name = validateText(rawName, 'name', LIMITS.category);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const category = await tx.category.findUnique({ where: { name } });
    if (!category) throw new DomainError('CATEGORY_NOT_FOUND', `No category is named "${name}".`, 'name');
    if (category.retiredAt) throw new DomainError('CATEGORY_RETIRED', `Category "${name}" is already retired.`, 'name');
    const retired = await tx.category.update({ where: { name }, data: { retiredAt: now, retiredBy: actor.name } });
    await appendEvent(sql, { type: 'CATEGORY_RETIRED', actor: actor.name, at: now, categoryName: name });
    return retired;
  });
}
