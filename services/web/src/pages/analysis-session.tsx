// Placeholder: this page is being written.
export function AnalysisSessionPage() {
  return <h1>AnalysisSessionPage</h1>;
}
