// Placeholder: this page is being written.
export function JobPage() {
  return <h1>JobPage</h1>;
}
