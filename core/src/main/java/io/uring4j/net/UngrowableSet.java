package io.uring4j.net;

import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Set;

/** A view of a set that allows removal but not addition, as the JDK's selected-key set. */
final class UngrowableSet<E> extends AbstractSet<E> {
    private final Set<E> set;

    UngrowableSet(Set<E> set) {
        this.set = set;
    }

    @Override
    public Iterator<E> iterator() {
        return set.iterator();
    }

    @Override
    public int size() {
        return set.size();
    }

    @Override
    public boolean contains(Object o) {
        return set.contains(o);
    }

    @Override
    public boolean remove(Object o) {
        return set.remove(o);
    }

    @Override
    public void clear() {
        set.clear();
    }

    @Override
    public boolean add(E e) {
        throw new UnsupportedOperationException();
    }
}
