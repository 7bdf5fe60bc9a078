import { Textarea, TextInput } from '@mantine/core';

export interface WorkspaceFieldValues {
  name: string;
  description: string;
}

/** What the API takes from the fields: trimmed, an empty description sent as `emptyDescription`. */
export function workspaceFieldsBody(values: WorkspaceFieldValues, emptyDescription: '' | undefined) {
  return { name: values.name.trim(), description: values.description.trim() || emptyDescription };
}

/**
 * A workspace's name and description, with the API's limits (255 and 1,000 characters): the same
 * fields for a new workspace and for an existing one's settings.
 */
export function WorkspaceFields({
  values,
  onChange,
  namePlaceholder,
  descriptionPlaceholder,
  autoFocus = false,
}: {
  values: WorkspaceFieldValues;
  onChange: (values: WorkspaceFieldValues) => void;
  namePlaceholder?: string;
  descriptionPlaceholder: string;
  autoFocus?: boolean;
}) {
  return (
    <>
      <TextInput
        label="Name"
        required
        maxLength={255}
        value={values.name}
        onChange={(event) => onChange({ ...values, name: event.currentTarget.value })}
        placeholder={namePlaceholder}
        data-autofocus={autoFocus || undefined}
      />
      <Textarea
        label="Description"
        maxLength={1000}
        autosize
        minRows={2}
        value={values.description}
        onChange={(event) => onChange({ ...values, description: event.currentTarget.value })}
        placeholder={descriptionPlaceholder}
      />
    </>
  );
}
