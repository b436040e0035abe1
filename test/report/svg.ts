// Reading rendered chart SVG in tests, without snapshots: marks by their ARIA role, axis titles by class.

/** The aria-labels of every mark item with this ARIA role description (`point`, `tick`, `rule mark`, `rect mark`, `line mark`, `text mark`). */
export function markLabels(svg: string, type: string): string[] {
  const re = new RegExp(`<[a-z]+ aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="${type}"`, 'g');
  return [...svg.matchAll(re)].map((m) => m[1] as string);
}

/** The texts of every axis title. */
export function axisTitles(svg: string): string[] {
  return [...svg.matchAll(/role-axis-title"[^>]*>(?:<text[^>]*>([^<]*)<\/text>)+/g)].map((m) => m[1] as string);
}

/** Every text element's content (titles, labels, legends). */
export function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] as string);
}
