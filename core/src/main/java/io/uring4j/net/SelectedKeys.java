package io.uring4j.net;

import java.nio.channels.SelectionKey;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A selector's selected-key set, behaving as the JDK's: removal and clear but no addition
 * (UnsupportedOperationException), an iterator that fails fast when the set changes past it, not thread-safe. The
 * keys sit in an array and each knows its own place ({@link UringSelectionKey#selectedIndex}), so selecting,
 * finding and removing a key allocate nothing, where a HashSet makes a node for every key selected. Removal moves
 * the last key into the gap: the order is no promise of a set's.
 */
final class SelectedKeys extends AbstractSet<SelectionKey> {
    private UringSelectionKey[] keys = new UringSelectionKey[16];
    private int size;
    private int modCount;

    /** Selecting thread: adds a key that is not in the set. */
    void put(UringSelectionKey key) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
        }
        key.selectedIndex = size;
        keys[size++] = key;
        modCount++;
    }

    @Override
    public boolean contains(Object o) {
        return o instanceof UringSelectionKey key && key.selectedIndex >= 0 && key.selectedIndex < size
                && keys[key.selectedIndex] == key;
    }

    @Override
    public boolean remove(Object o) {
        if (!contains(o)) {
            return false;
        }
        removeAt(((UringSelectionKey) o).selectedIndex);
        return true;
    }

    private void removeAt(int index) {
        keys[index].selectedIndex = -1;
        size--;
        if (index != size) {
            keys[index] = keys[size];
            keys[index].selectedIndex = index;
        }
        keys[size] = null;
        modCount++;
    }

    @Override
    public void clear() {
        for (int i = 0; i < size; i++) {
            keys[i].selectedIndex = -1;
            keys[i] = null;
        }
        size = 0;
        modCount++;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean add(SelectionKey key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Iterator<SelectionKey> iterator() {
        return new Iterator<>() {
            private int next;
            private int last = -1;
            private int expected = modCount;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public SelectionKey next() {
                if (modCount != expected) {
                    throw new ConcurrentModificationException();
                }
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                last = next;
                return keys[next++];
            }

            @Override
            public void remove() {
                if (last < 0) {
                    throw new IllegalStateException();
                }
                if (modCount != expected) {
                    throw new ConcurrentModificationException();
                }
                removeAt(last);
                next = last;                    // the key moved into the gap is still to come
                last = -1;
                expected = modCount;
            }
        };
    }
}
