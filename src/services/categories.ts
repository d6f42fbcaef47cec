// Category administration: set up and add categories, retire them.

import type { Category } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { categoryFromJson } from '../db/write-calls.js';
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
  // PostgreSQL: one statement under the write lock (leasehold_add_categories), not an interactive transaction.
  return deps.db.perform({
    work: async (_tx, sql) => {
      const now = deps.clock.now();
      const existing = await sql.all<{ name: string }>(
        `SELECT "name" FROM "Category" WHERE "name" IN (${valid.map(() => '?').join(', ')})`,
        ...valid,
      );
      const taken = valid.find((name) => existing.some((row) => row.name === name));
      if (taken !== undefined) throw duplicateCategory(taken);
      const created: Category[] = [];
      for (const name of valid) {
        await sql.run('INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)', name, now, actor.name);
        created.push({ name, createdAt: now, createdBy: actor.name, retiredAt: null, retiredBy: null });
        await appendEvent(sql, { type: 'CATEGORY_ADDED', actor: actor.name, at: now, categoryName: name });
      }
      return created;
    },
    call: {
      fields: { op: 'addCategories', actor: actor.name, names: valid },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.refusal === 'DUPLICATE_CATEGORY') throw duplicateCategory(answer.taken ?? valid[0] ?? '');
        return (answer.categories ?? []).map(categoryFromJson);
      },
    },
  });
}

/** The first of the names given that is a category already: the call adds none. */
function duplicateCategory(name: string): DomainError {
  return new DomainError('DUPLICATE_CATEGORY', `Category "${name}" already exists.`, 'names');
}

/** Retires a category: it stays on the items that use it but can no longer be proposed or chosen. */
export async function retireCategory(deps: ServiceDeps, actor: Actor, rawName: string): Promise<Category> {
  const name = validateText(rawName, 'name', LIMITS.category);
  const notFound = () => new DomainError('CATEGORY_NOT_FOUND', `No category is named "${name}".`, 'name');
  const retiredAlready = () => new DomainError('CATEGORY_RETIRED', `Category "${name}" is already retired.`, 'name');
  // PostgreSQL: one statement under the write lock (leasehold_retire_category).
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const category = await tx.category.findUnique({ where: { name } });
      if (!category) throw notFound();
      if (category.retiredAt) throw retiredAlready();
      const retired = await tx.category.update({ where: { name }, data: { retiredAt: now, retiredBy: actor.name } });
      await appendEvent(sql, { type: 'CATEGORY_RETIRED', actor: actor.name, at: now, categoryName: name });
      return retired;
    },
    call: {
      fields: { op: 'retireCategory', actor: actor.name, name },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.refusal === 'CATEGORY_NOT_FOUND') throw notFound();
        if (answer.refusal === 'CATEGORY_RETIRED' || !answer.retiredCategory) throw retiredAlready();
        return categoryFromJson(answer.retiredCategory);
      },
    },
  });
}
