import { Component, type ReactNode } from 'react';

interface Props {
  /** What is shown instead of children that failed to render. */
  fallback: (error: Error) => ReactNode;
  children: ReactNode;
}

/** Keeps a failing part (a lazily loaded chunk, content the editor cannot read) from blanking the page. */
export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  render() {
    return this.state.error ? this.props.fallback(this.state.error) : this.props.children;
  }
}
