"""`Forward`: an attribute that reads (and, when allowed, writes) an attribute of one of the object's parts, so a
facade exposes its parts' fields without a property block per field."""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class Forward(Generic[T]):
    """`store = Forward[MemoryStore]("_shared")` makes `obj.store` mean `obj._shared.store` (the part's attribute
    of the same name, or `attr`); assigning to it is an error unless `writable`."""

    def __init__(self, part: str, attr: str | None = None, *, writable: bool = False, doc: str = "") -> None:
        self.part, self.attr, self.writable = part, attr, writable
        self.__doc__ = doc or None

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = self.attr or name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Forward[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> Forward[T] | T:
        if obj is None:
            return self
        value: T = getattr(getattr(obj, self.part), self.attr or "")
        return value

    def __set__(self, obj: Any, value: T) -> None:
        if not self.writable:
            raise AttributeError(f"{self.attr} is read-only here: set it on {self.part}")
        setattr(getattr(obj, self.part), self.attr or "", value)
