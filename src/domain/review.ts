// Review decisions: which category arguments each outcome takes and what the final category becomes.
import { DomainError } from './errors.js';
import { LIMITS, validateText } from './validation.js';

export type Decision = 'ACCEPTED' | 'CORRECTED' | 'REJECTED';
export type ItemStatus = 'PENDING' | Decision;

/**
 * The argument rules seed A checks before it opens the database: CORRECTED needs a
 * category, the other two must not have one.
 */
export function checkDecisionArguments(decision: Decision, category: string | null | undefined): string | null {
  if (decision === 'CORRECTED') {
    if (category === null || category === undefined) {
      throw new DomainError('CATEGORY_REQUIRED', 'A CORRECTED decision needs a category: pass the corrected one.', 'category');
    }
    return validateText(category, 'category', LIMITS.category);
  }
  if (category !== null && category !== undefined) {
    throw new DomainError('UNEXPECTED_CATEGORY', `${decision} takes no category: leave it out.`, 'category');
  }
  return null;
}

export interface CategoryStanding {
  exists: boolean;
  retired: boolean;
}

/** The final category a decision stores, once the category's standing is known. */
export function finalCategory(
  decision: Decision,
  proposedCategory: string,
  correction: string | null,
  standing: CategoryStanding | null,
): string | null {
  if (decision === 'ACCEPTED') return proposedCategory;
  if (decision === 'REJECTED') return null;
  if (correction === null || standing === null || !standing.exists) {
    throw new DomainError('UNKNOWN_CATEGORY', 'The corrected category is not an allowed category.', 'category');
  }
  if (correction === proposedCategory) {
    throw new DomainError('CATEGORY_UNCHANGED', 'A CORRECTED decision must name a category different from the proposal.', 'category');
  }
  if (standing.retired) {
    throw new DomainError('CATEGORY_RETIRED', `Category "${correction}" is retired and cannot be chosen.`, 'category');
  }
  return correction;
}
