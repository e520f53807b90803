#pragma once
// Sets a variable for as long as a scope lasts and gives it its old value back when the scope ends,
// however it ends.
namespace echo {

template <class T>
class ScopedValue {
public:
  ScopedValue(T& slot, T value) : slot_(slot), was_(slot) { slot_ = value; }
  ~ScopedValue() { slot_ = was_; }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

private:
  T& slot_;
  T was_;
};

} // namespace echo
