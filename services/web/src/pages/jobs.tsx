// Placeholder: this page is being written.
export function JobsPage() {
  return <h1>JobsPage</h1>;
}
