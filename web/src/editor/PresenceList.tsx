import { useEffect, useState } from 'react';
import type { CollabRoom, RoomPerson } from './collab-room';
import { safeColor } from './person-color';

/** Who else has the document open, one name per person however many tabs they use. */
export function PresenceList({ room }: { room: CollabRoom }) {
  const [people, setPeople] = useState<RoomPerson[]>(() => room.people());
  useEffect(() => {
    const awareness = room.provider.awareness;
    const update = () => setPeople(room.people());
    update();
    awareness?.on('change', update);
    return () => awareness?.off('change', update);
  }, [room]);

  const unique = [...new Map(people.map((person) => [person.id, person])).values()];
  return (
    <section className="presence" aria-label="People here">
      {unique.length === 0 ? (
        <p className="presence-empty">Only you are here.</p>
      ) : (
        <ul>
          {unique.map((person) => (
            <li key={person.id}>
              <span className="presence-dot" style={{ backgroundColor: safeColor(person.color) }} aria-hidden="true" />
              {person.name}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
