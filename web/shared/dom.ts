// Small DOM helpers for the dashboard: find the page's elements by id (failing loudly), make new ones.

/** The page's element with this id; throws when index.html lacks it, so a renamed id fails at load, not later. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no #${id}.`);
  return found as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(name: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
