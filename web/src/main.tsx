import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(<h1>Planner's workbench</h1>);
