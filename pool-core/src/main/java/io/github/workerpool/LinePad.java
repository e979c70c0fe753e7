package io.github.workerpool;

/**
 * A cache line of padding before the fields of a subclass that other threads write often, so
 * that they never share a line with whatever the heap put just before the object. A subclass
 * pads after its fields itself (fields of a class come after those of its superclasses).
 */
abstract class LinePad {
    // p00 fills the 4 bytes after the object header, where the layout would otherwise put an int
    // or a reference of a subclass: unpadded, and on another line than the subclass's other fields.
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
}
