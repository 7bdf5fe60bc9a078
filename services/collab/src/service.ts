export const COLLAB_PATH = '/collab';
